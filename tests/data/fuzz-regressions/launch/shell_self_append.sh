N=${NODES:-2}
A=( --num-layers $((N"measured_mfu"-siz= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_paramd:_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: lg, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g" ]]; then A+=(--bbase_model: llama-3U*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g *,g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h(N"measured_mfu"-siz= 3 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *b, *b, c, *c, *c, h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --nug]m-attention-heads 2
 *b, *b, *b, *b, f16); else A+=(--fp16); fi
torchrun --nproc_per_node 4 --nnodes $N *b, *b, *b]
d: &d [*c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --nug]m-attenchrun g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g" ]]; then A+=(--bbase_model: llama-3U*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  .${A[*g, *g, *g, *g, *g, *@]} --nug]m-attentioA=( --num-layers $((N"measured_mfu"-siz= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *b, *b, c, lama-3U*g, *g, *g, *g,p1retsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g" ]]; then A+=(--bbase_model: llama-3U*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h(N"measured_mfu"-siz= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *bretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g" ]]; then A+=(--bbase_model: llama-3U*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b,b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h(N"measured_mfu"-siz= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *bretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g" ]]; then A+=(--bbase_model: llama-3U*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g *,g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h(N"measured_mfu"-siz= 3 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *b, *b, c, *c, *c, h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --nug]m-attention-heads 2
 *b, *b, *b, *b, f16); else A+=(--fp16); fi
torchrun --nproc_per_node 4 --nnodes $N *b, *b, *b]
d: &d [*c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --nug]m-attenchrun g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g" ]]; then A+=(--bbase_model: llama-3U*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  .${A[*g, *g, *g, *g, *g, *@]} --nug]m-attentioA=( --num-layers $((N"measured_mfu"-siz= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *b, *b, c, *c, *c, h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --nug]m-attention-heads 2
 *b, *b, *b, *b, f16); else A+ xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b,b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h(N"measured_mfu"-siz= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *bretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g" ]]; then A+=(--bbase_model: llama-3U*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g *,g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h(N"measured_mfu"-siz= 3 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *b, *b, c, *c, *c, h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --nug]m-attention-heads 2
 *b, *b, *b, *b, f16); else A+=(--fp16); fi
torchrun --nproc_per_node 4 --nnodes $N *b, *b, *b]
d: &d [*c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --nug]m-attenchrun g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g" ]]; then A+=(--bbase_model: llama-3U*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *%g, *g, *@]} --8b
a: &a [x, x, xseq_le*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, “: &h [*g, *g, *g, *g, *g, *g, *g,*a, *a, *a, *a, *a]
c: &c [*b, *b, *b, b, *b, *b, *b, *b, *b, *b]
d:d  [&*c, *c, *c, *c,"attention_dropout" h: &h [*g, *g, *c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  .${A[*g, *g, *g, *g, *g, *@]} --nug]m-attentioA=( --num-layers $((N"measured_mfu"-siz= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3, x, xseq_le*b, *b,"stage3_param_persistence_threshold"= 2 ]] || [æ -z "$X" ]]; then A+=(--bbase_model: llama-3[*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --8b
a: &]
c: &c [*b, *b, *b, b, *b, *b, *b, c, *c, *c, h: &h [*g, *g, *c, *c, *c, @]} --nug]m-atglobal_n-heads 4
 *b, *b, *b, *b, f16); else A+=(--fp16); fi
torchrun --nproc_per_node 2 --nnodes $N *b, *b, *b]
d: &d [*c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g, *g, *@]} --nug]m-attenchurn --nproc_per_node 4 --nnodes $N *b, *b, *b]
d: &d [*c, *c, *c, *c, h: &h [*g, *g, *g, *g,pretsain_gpt.py  ${A[*g, *g, *g, *g,g, * *@]} --nug]m-atglobal_batchs 2
