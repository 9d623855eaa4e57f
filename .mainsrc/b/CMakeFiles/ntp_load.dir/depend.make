# Empty dependencies file for ntp_load.
# This may be replaced when dependencies are built.
