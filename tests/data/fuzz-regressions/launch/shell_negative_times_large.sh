N=$((-1000000000000 * 1000000000000))
torchrun pretrain_gpt.py --num-layers 2 --hidden-size 8 --num-attention-heads 2 --seq-length 8 --global-batch-size $N
