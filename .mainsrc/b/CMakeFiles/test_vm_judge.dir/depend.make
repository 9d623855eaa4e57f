# Empty dependencies file for test_vm_judge.
# This may be replaced when dependencies are built.
