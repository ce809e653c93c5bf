"""Headless Chromium for the console tests, driven by Selenium through Debian's chromedriver.

The browser and its driver come from the same Debian release (`make browser` installs both), so
their versions always match and nothing is downloaded: Selenium is given both paths and told to stay
offline instead of fetching a driver of its own.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

if TYPE_CHECKING:
    from tests.support.session_service import Service

CHROMIUM = Path(os.environ.get("AGENTRY_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("AGENTRY_CHROMEDRIVER", "/usr/bin/chromedriver"))
#: Where a test also saves its screenshots when set (the README's docs/console.png is made so).
SCREENSHOT_DIR_ENV = "AGENTRY_SCREENSHOT_DIR"
WINDOW = (1440, 1100)

T = TypeVar("T")


def require_browser() -> None:
    """Skip on a machine without Chromium; in CI (`CI` set) its absence is a failure instead."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if not missing:
        return
    message = f"{', '.join(missing)} not installed (make browser)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def chromium() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    require_browser()
    os.environ.setdefault("SE_OFFLINE", "true")
    options = Options()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        # CI runs as root, where Chromium's sandbox cannot start.
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def until(
    driver: Any, condition: Callable[[Any], T | bool | None], timeout: float = 30.0, what: str = ""
) -> T:
    """Poll `condition(driver)` until it is truthy; on timeout fail with the page's console log."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        result: T = WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition)
        return result
    except TimeoutException:
        logs = "\n".join(entry["message"] for entry in driver.get_log("browser"))
        pytest.fail(f"timed out after {timeout} s waiting for {what}; browser log:\n{logs}")


def save_screenshot(driver: Any, tmp_path: Path, name: str, *, publish: bool = True) -> Path:
    """Save the window as `name` in the test's tmp dir, and (`publish`) in $AGENTRY_SCREENSHOT_DIR
    when it is set."""
    path = tmp_path / name
    assert driver.save_screenshot(str(path)), "the screenshot could not be taken"
    target = os.environ.get(SCREENSHOT_DIR_ENV)
    if publish and target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(target) / name)
    return path


def css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(driver.find_elements(By.CSS_SELECTOR, selector))


def one(driver: Any, selector: str, timeout: float = 30.0) -> Any:
    return until(driver, lambda d: (css(d, selector) or [None])[0], timeout, what=selector)


def sign_in(driver: Any, service: Service, key: str, hash_path: str = "") -> None:
    """Open the console in a fresh session and sign in with `key`."""
    driver.get(f"{service.url}/console/")
    driver.execute_script("sessionStorage.clear()")
    driver.get(f"{service.url}/console/{hash_path}")
    one(driver, "#api-key").send_keys(key)
    one(driver, "#login-form button[type=submit]").click()
    until(driver, lambda d: css(d, "#nav") and d.find_element("id", "nav").is_displayed(), what="sign-in")
    assert driver.execute_script("return sessionStorage.getItem('agentry.apiKey')") == key
    assert driver.execute_script("return localStorage.length") == 0
