// SearchAPI
