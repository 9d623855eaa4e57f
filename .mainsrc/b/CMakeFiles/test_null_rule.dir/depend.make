# Empty dependencies file for test_null_rule.
# This may be replaced when dependencies are built.
