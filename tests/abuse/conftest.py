from tests.e2e.conftest import server, store_url  # noqa: F401  (the e2e fixtures, both stores)
