# Empty dependencies file for leapclock_cli.
# This may be replaced when dependencies are built.
