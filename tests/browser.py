"""Headless Chromium for the page tests (the size treemap, the history plot): find Debian's browser, run it on a file,
and read the DOM it dumps. The `chromium` fixture (tests/conftest.py) skips with the reason when there is none."""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser")
SKIP_REASON = "Chromium not installed: apt-get install chromium (Debian) to run the browser tests of the HTML pages"
WINDOW = (1280, 900)
PROBE = "<!DOCTYPE html><p id=p></p><script>document.getElementById('p').textContent='ran'</script>"


def find_chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_command(binary: str, profile: Path, *action: str, window: tuple[int, int] = WINDOW) -> list[str]:
    # The flags keep a headless browser off the (closed) network and out of the user's profile.
    return [
        binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-extensions", f"--user-data-dir={profile}", f"--window-size={window[0]},{window[1]}",
        "--hide-scrollbars", "--virtual-time-budget=3000", *action,
    ]


def start_chromium(tmp_path_factory):
    """Debian's chromium: found on PATH, installed with apt-get when SIZETOOL_INSTALL_CHROMIUM=1 and running as
    root, else the test skips. Returns run(*action, window=WINDOW) -> CompletedProcess."""
    binary = find_chromium()
    can_install = getattr(os, "geteuid", lambda: -1)() == 0 and shutil.which("apt-get")
    if binary is None and os.environ.get("SIZETOOL_INSTALL_CHROMIUM") == "1" and can_install:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1200)
        binary = find_chromium()
    if binary is None:
        pytest.skip(SKIP_REASON)
    profile = tmp_path_factory.mktemp("chromium-profile")
    probe = tmp_path_factory.mktemp("chromium-probe") / "probe.html"
    probe.write_text(PROBE)

    def run(*action: str, window: tuple[int, int] = WINDOW) -> subprocess.CompletedProcess:
        return subprocess.run(chromium_command(binary, profile, *action, window=window), capture_output=True,
                              text=True, timeout=90)

    try:
        result = run("--dump-dom", probe.as_uri())
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"Chromium ({binary}) does not start headless here: {error}")
    if '<p id="p">ran</p>' not in result.stdout:
        pytest.skip(f"Chromium ({binary}) cannot run headless here: {result.stderr.strip()[-300:]}")
    return run


class Dom(HTMLParser):
    """Every element of a dumped DOM with its attributes and text."""

    VOID = {"meta", "input", "br", "img", "link", "hr", "line", "rect", "path"}

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self._open: list[dict] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": {k: v or "" for k, v in attrs}, "text": ""}
        self.elements.append(element)
        if tag not in self.VOID:
            self._open.append(element)

    def handle_startendtag(self, tag, attrs):
        self.elements.append({"tag": tag, "attrs": {k: v or "" for k, v in attrs}, "text": ""})

    def handle_endtag(self, tag):
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index]["tag"] == tag:
                del self._open[index:]
                break

    def handle_data(self, data):
        for element in self._open:
            element["text"] += data

    def find(self, predicate) -> list[dict]:
        return [e for e in self.elements if predicate(e)]

    def by_class(self, name: str) -> list[dict]:
        return self.find(has_class(name))

    def by_id(self, name: str) -> dict:
        return next(e for e in self.elements if e["attrs"].get("id") == name)


def has_class(name: str):
    return lambda e: name in e["attrs"].get("class", "").split()


def load(chromium, path: Path, fragment: str = "", window: tuple[int, int] = WINDOW) -> Dom:
    """The DOM of a page after its scripts ran."""
    result = chromium("--dump-dom", path.as_uri() + fragment, window=window)
    assert result.returncode == 0 and "</html>" in result.stdout, result.stderr[-500:]
    return Dom(result.stdout)
