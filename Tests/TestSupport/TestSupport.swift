// TestSupport: servers that are not Ferry's code, for integration tests.
