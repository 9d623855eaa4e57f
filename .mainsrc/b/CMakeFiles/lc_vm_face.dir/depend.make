# Empty dependencies file for lc_vm_face.
# This may be replaced when dependencies are built.
