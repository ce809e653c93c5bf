"""The console: a small web app at /console over the public API, plain files with no build step."""

from serve.console.mount import CONSOLE_PATH, mount_console

__all__ = ["CONSOLE_PATH", "mount_console"]
