#pragma once
// The KV cache and sliding-window mistakes of the lessons after the chapter (kv-cache, swa) as reruns of
// the lesson, for `attn-tutor check`'s diagnosis (features/check/mistake_replay.cpp calls it).
#include <string>
#include <vector>

#include "features/check/mistake_rerun.h"

namespace attn {

// The reruns for `lesson` (none for a lesson other than kv-cache and swa).
std::vector<MistakeRerun> cache_mistake_reruns(const std::string& lesson, const LessonOptions& opt);

// "export-settings" after the chapter: the lesson rerun with its own setting (gqa --num-kv-groups, mla
// --latent-dim, swa --window) at each other value worth trying, everything else as the export declares; an
// export that forgot it. A forgotten window changes values, not shapes: these run whether shapes differ or not.
std::vector<MistakeRerun> own_setting_reruns(const std::string& lesson, const LessonOptions& opt);

}  // namespace attn
