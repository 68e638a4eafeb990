// integration tests: see below
