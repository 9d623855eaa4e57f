# Empty dependencies file for test_ntp_packet.
# This may be replaced when dependencies are built.
