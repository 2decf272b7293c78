alignas(16) extern const unsigned char g_model[64];
alignas(16) const unsigned char g_model[64] = {0};
