# Empty compiler generated dependencies file for test_ntp.
# This may be replaced when dependencies are built.
