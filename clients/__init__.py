"""The files the server serves as they are (service/http/static.py): the web client (web/) and
the JavaScript SDK it imports (js/). Package data only: the Python SDK is its own distribution,
`teahouse-client` (clients/python)."""
