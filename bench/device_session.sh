set -x
B=./build/gpudoctor
nvidia-smi -L; ls -la /dev/nvidia* ; cat /proc/driver/nvidia/version
$B > $OUT/healthy.txt 2>&1; echo "rc=$?" >> $OUT/healthy.txt
$B --json > $OUT/healthy.json 2>$OUT/healthy.err; echo "rc=$?"
CUDA_VISIBLE_DEVICES=99 $B > $OUT/cvd99.txt 2>&1; echo "rc=$?" >> $OUT/cvd99.txt
$B --libcuda /usr/local/cuda/lib64/stubs/libcuda.so > $OUT/stub.txt 2>&1; echo "rc=$?" >> $OUT/stub.txt
mkdir -p /tmp/stubdir && ln -sf /usr/local/cuda/lib64/stubs/libcuda.so /tmp/stubdir/libcuda.so.1
LD_LIBRARY_PATH=/tmp/stubdir:$LD_LIBRARY_PATH $B > $OUT/stub_ldpath.txt 2>&1; echo "rc=$?" >> $OUT/stub_ldpath.txt
bash bench/run.sh $B 11 > $OUT/bench.txt 2>&1
cat $OUT/healthy.txt $OUT/cvd99.txt | head -80; cat $OUT/bench.txt
