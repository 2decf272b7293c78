"""Shared test fixtures: where the committed fixtures and the optional public models live."""

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = REPO_ROOT / "fixtures"
SHARED_MODELS = REPO_ROOT.parent / "shared" / "models"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def shared_models() -> Path:
    """The real public models in ../shared/models; skips the test when they are not beside the repo."""
    if not SHARED_MODELS.is_dir():
        pytest.skip(f"{SHARED_MODELS} is absent (real public models are optional)")
    return SHARED_MODELS


@pytest.fixture(autouse=True)
def private_report_cache(tmp_path, monkeypatch):
    """Every test gets its own empty report cache instead of the user's ~/.cache/sizetool."""
    monkeypatch.setenv("SIZETOOL_CACHE_DIR", str(tmp_path / "sizetool-cache"))
    monkeypatch.delenv("SIZETOOL_NO_CACHE", raising=False)


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    """Headless Chromium for the page tests (tests/browser.py); skips with the reason when it cannot run."""
    from tests.browser import start_chromium

    return start_chromium(tmp_path_factory)
