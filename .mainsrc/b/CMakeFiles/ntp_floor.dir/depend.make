# Empty dependencies file for ntp_floor.
# This may be replaced when dependencies are built.
