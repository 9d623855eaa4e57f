file(REMOVE_RECURSE
  "CMakeFiles/lc_vm_face.dir/tests/vm/vm_face.c.o"
  "CMakeFiles/lc_vm_face.dir/tests/vm/vm_face.c.o.d"
  "lc_vm_face"
  "lc_vm_face.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/lc_vm_face.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
