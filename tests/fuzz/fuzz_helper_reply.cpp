// The CUDA helper's reply (docs/helper-protocol.md): what a hostile libcuda could make it say.
#include "fuzz_target.hpp"
#include "probes/cuda/helper_reply.hpp"

GD_FUZZ_TEXT({ (void)gd::parse_helper_reply(text); })
