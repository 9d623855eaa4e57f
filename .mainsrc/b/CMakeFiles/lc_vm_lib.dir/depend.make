# Empty dependencies file for lc_vm_lib.
# This may be replaced when dependencies are built.
