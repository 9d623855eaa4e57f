file(REMOVE_RECURSE
  "CMakeFiles/lc_vm_lib.dir/tests/vm/vm_lib.c.o"
  "CMakeFiles/lc_vm_lib.dir/tests/vm/vm_lib.c.o.d"
  "lc_vm_lib"
  "lc_vm_lib.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/lc_vm_lib.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
