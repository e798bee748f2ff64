// The softmax lesson's diagnoses: its weights' mistakes (lessons/diagnosis.h).
#include "lessons/diagnosis.h"

namespace attn {

void softmax_diagnoses(Reruns& r) { weight_mistakes(r, 2, false, false); }

}  // namespace attn
