"""Helpers for tests/test_browser.py (JupyterLab in headless Chromium)."""
