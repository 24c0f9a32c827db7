/* The kernel every GPU must run and get right: written for gpudoctor, as PTX text so that the
 * driver's own JIT compiler (libnvidia-ptxjitcompiler) builds it for whatever GPU it meets.
 *
 * PTX ISA 3.0 with `.target sm_30` is the oldest ISA that has sm_30; PTX is forward compatible, so
 * every driver JITs it for every GPU from Kepler (sm_30) to Blackwell (sm_100, sm_120): CUDA 13's
 * ptxas builds it for sm_75, sm_90, sm_100 and sm_120, and drivers that still run Kepler (R470)
 * know sm_30 themselves. Only instructions of that ISA are used.
 *
 * Thread i of n writes value(i, seed) = (i * 0x9E3779B1 + seed) XOR (i >> 7) (mod 2^32) to
 * out[i]: every element differs and depends on its index and on the seed (the GPU's index), so
 * a lost launch, a wrong block or thread index, a stale buffer or broken arithmetic shows up as
 * a wrong element, never as a plausible constant. */
#ifndef GD_HELPER_KERNEL_PROOF_H
#define GD_HELPER_KERNEL_PROOF_H

#include <stdint.h>

enum {
  k_proof_block = 256,                 /* threads per block */
  k_proof_blocks = 16,                 /* 4,096 threads in all */
  k_proof_elements = k_proof_block * k_proof_blocks,
};

#define GD_PROOF_KERNEL_NAME "gd_proof_fill"

static const char k_proof_ptx[] =
    ".version 3.0\n"
    ".target sm_30\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry gd_proof_fill(\n"
    "  .param .u64 out,\n"
    "  .param .u32 n,\n"
    "  .param .u32 seed)\n"
    "{\n"
    "  .reg .pred p;\n"
    "  .reg .b32 r<9>;\n"
    "  .reg .b64 rd<4>;\n"
    "  ld.param.u64 rd1, [out];\n"
    "  ld.param.u32 r1, [n];\n"
    "  ld.param.u32 r2, [seed];\n"
    "  mov.u32 r3, %ctaid.x;\n"
    "  mov.u32 r4, %ntid.x;\n"
    "  mov.u32 r5, %tid.x;\n"
    "  mad.lo.u32 r6, r3, r4, r5;\n"        /* i = blockIdx.x * blockDim.x + threadIdx.x */
    "  setp.ge.u32 p, r6, r1;\n"
    "  @p bra DONE;\n"
    "  mad.lo.u32 r7, r6, -1640531535, r2;\n" /* i * 0x9E3779B1 + seed */
    "  shr.u32 r8, r6, 7;\n"
    "  xor.b32 r7, r7, r8;\n"
    "  cvta.to.global.u64 rd2, rd1;\n"
    "  mul.wide.u32 rd3, r6, 4;\n"
    "  add.s64 rd2, rd2, rd3;\n"
    "  st.global.u32 [rd2], r7;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

/* What thread i must have written. */
static inline uint32_t proof_value(uint32_t i, uint32_t seed) { return (i * 0x9E3779B1u + seed) ^ (i >> 7); }

/* The first element that differs from what the kernel must write, or -1 when all are right. */
static inline int proof_first_wrong(const uint32_t* values, uint32_t count, uint32_t seed) {
  for (uint32_t i = 0; i < count; ++i) {
    if (values[i] != proof_value(i, seed)) return (int)i;
  }
  return -1;
}

#endif
