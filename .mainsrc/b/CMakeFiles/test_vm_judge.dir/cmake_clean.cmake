file(REMOVE_RECURSE
  "CMakeFiles/test_vm_judge.dir/tests/test_vm_judge.c.o"
  "CMakeFiles/test_vm_judge.dir/tests/test_vm_judge.c.o.d"
  "test_vm_judge"
  "test_vm_judge.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_vm_judge.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
