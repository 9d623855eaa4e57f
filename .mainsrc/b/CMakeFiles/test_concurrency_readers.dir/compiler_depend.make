# Empty compiler generated dependencies file for test_concurrency_readers.
# This may be replaced when dependencies are built.
