// Stand-in for ESP-IDF's start-up: calls the application's app_main().
extern "C" void app_main();

int main() {
  app_main();
  return 0;
}
