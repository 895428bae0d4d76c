# Sourced by the experiment scripts: the tuned table's pick at every shape
# (kernels/tuned/indexer_fwd.h200.txt: four queries an item as two parts,
# two groups taking whole tiles; the producer warps at the compiler's 40
# registers since session 22, 24 before), less `dynamic`, as minitile's -p
# options; and the inputs its runners use. bench/CMakeLists.txt's
# batched_indexer_fwd_pick spells the same parameters out (CMake does not
# source this).
pick_params=(-p heads=64 -p dim=128 -p queries=4 -p split=true -p split_queries=2 -p warpgroups=2
             -p stages=4 -p persistent=true -p last_first=true -p item_buffers=2
             -p producer_registers=0)
pick_inits=(--init q=normal:0,1 --init kv=normal:0,1 --init ks=0)
