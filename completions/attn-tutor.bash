# bash completion for attn-tutor
_attn_tutor() {
  local cur prev words cword
  _init_completion 2>/dev/null || { cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"; }
  # generated from lessons/options.txt and lessons/registry.cpp by lessons/option_docs.cpp: begin
  local lessons="naive-scores softmax trainable causal-mask dropout wrapper mha course-mha d2l-mha kv-cache gqa mla
                 swa mha-forms all verify check bench kv-memory lessons"
  local options="--seed --inputs --tokens --d-in --d-out --qkv-bias --init --num-heads --dropout --context-length
                 --bernoulli --no-reseed --preset --d-model --num-hiddens --valid-lens --gpt2 --num-kv-groups
                 --latent-dim --window --json --py --ipynb --lang --explain --step --from --color --heatmap --html
                 --help"
  case "$prev" in
    --inputs|--json|--py|--ipynb|--html) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --init) COMPREPLY=($(compgen -W "rand randn" -- "$cur")); return ;;
    --bernoulli) COMPREPLY=($(compgen -W "default mkl" -- "$cur")); return ;;
    --preset) COMPREPLY=($(compgen -W "small post" -- "$cur")); return ;;
    --lang) COMPREPLY=($(compgen -W "en zh" -- "$cur")); return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
  # generated: end
    --dtype) COMPREPLY=($(compgen -W "fp32 bf16 fp16 fp8 int8" -- "$cur")); return ;;
    --plot) COMPREPLY=($(compgen -W "methods gqa mla swa" -- "$cur")); return ;;
    --kernels) COMPREPLY=($(compgen -W "avx512 avx2 neon portable" -- "$cur")); return ;;
    --forms) COMPREPLY=($(compgen -W "wrapper mha fused-qkv flash einsum sdpa-mask torch-mha torch-mha-weights" -- "$cur")); return ;;
  esac
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "$lessons --help --version" -- "$cur"))
  elif [[ ${COMP_WORDS[1]} == bench ]]; then
    COMPREPLY=($(compgen -W "--batch --tokens --d-model --num-heads --threads --repeats --seed --kernels --forms --json --lang --help" -- "$cur"))
  elif [[ ${COMP_WORDS[1]} == kv-memory ]]; then
    COMPREPLY=($(compgen -W "--emb-dim --num-heads --num-layers --context-length --num-kv-groups --batch-size --dtype
                              --window --swa-ratio --latent-dim --plot --json --html --lang --help" -- "$cur"))
  elif [[ ${COMP_WORDS[1]} == lessons ]]; then
    COMPREPLY=($(compgen -W "--json --lang --help" -- "$cur"))
  elif [[ ${COMP_WORDS[1]} == check ]]; then
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--color --lang --html --python --timeout --lesson --seed --help" -- "$cur"))
    elif [[ $prev == --lesson ]]; then COMPREPLY=($(compgen -W "${lessons%% all *}" -- "$cur"))
    elif [[ $prev == --python ]]; then COMPREPLY=($(compgen -c -- "$cur"))
    else COMPREPLY=($(compgen -f -- "$cur")); fi
  elif [[ ${COMP_WORDS[1]} == verify ]]; then
    COMPREPLY=($(compgen -W "$lessons --lang --html --help" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  fi
}
complete -F _attn_tutor attn-tutor
