# The e2e fixtures: a server on each store, and closing what a test opened.
from tests.e2e.conftest import _close_what_the_test_opened, server, store_url  # noqa: F401
