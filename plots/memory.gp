# memory.gp -- memory per GPU by component, one stacked bar per strategy. Written by `zerosim plot`; redraw with `gnuplot memory.gp` in this
# directory (the data is in memory.dat, described by its '#' header). Edit freely.
if (!exists('zs_png')) zs_png = 'memory.png'
if (!exists('zs_svg')) zs_svg = 'memory.svg'
GiB = 2.0**30          # bytes
GB = 1.0e9             # bytes
set datafile missing '?'
set border lw 1.2
set grid ytics lc rgb '#d0d0d0'
set key noenhanced
hbm = 85899345920    # bytes: the GPU's memory
ymax = 214748364800   # bytes: top of the y axis (taller bars are clipped; their totals are labelled)
# Changing ymax? Keep only the label clauses that have bars to label: gnuplot 5.4 crashes
# on a labels plot whose points are all undefined.
set title 'Memory per GPU by component' . "\n" . 'llama-2-70b on a100-80gb (80.00 GiB HBM), 64 GPUs = 8 node(s) x 8' . "\n" . 'micro-batch 1 x seq 4096, grad-accum 1, bf16 adamw, checkpointing full' font ',12'
set ylabel 'memory per GPU (GiB = 2^30 bytes)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border rgb '#404040'
set boxwidth 0.6 relative
set key outside bottom center horizontal Left reverse maxcols 4 samplen 2
set style textbox opaque noborder
set xrange [-0.6:3.6]
set yrange [0:ymax/GiB]
if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
} else {
    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced
}
set output zs_png
plot 'memory.dat' using ($4/GiB):xtic(2) title 'parameters' lc rgb '#4e79a7', \
     'memory.dat' using ($5/GiB) title 'gradients' lc rgb '#f28e2b', \
     'memory.dat' using ($6/GiB) title 'optimizer states' lc rgb '#e15759', \
     'memory.dat' using ($8/GiB) title 'activations' lc rgb '#76b7b2', \
     'memory.dat' using ($9/GiB) title 'logits (fp32, loss)' lc rgb '#59a14f', \
     'memory.dat' using ($11/GiB) title 'communication buckets' lc rgb '#edc948', \
     'memory.dat' using ($12/GiB) title 'ZeRO-3 gathered params' lc rgb '#b07aa1', \
     'memory.dat' using ($14/GiB) title 'CUDA context' lc rgb '#ff9da7', \
     'memory.dat' using ($15/GiB) title 'allocator overhead' lc rgb '#9c755f', \
     hbm/GiB with lines dt 2 lw 2.5 lc rgb '#c00000' title sprintf('GPU HBM %.4g GiB', hbm/GiB), \
     'memory.dat' using 0:($16 > ymax ? NaN : $16/GiB):(column(3) > 0 ? sprintf('%.1f GiB', $16/GiB) : 'not applicable') with labels offset 0,0.8 notitle, \
     'memory.dat' using 0:($16 > ymax ? ymax/GiB : NaN):(sprintf("%.0f GiB\n(off scale)", $16/GiB)) with labels offset 0,-1.6 boxed notitle
unset output
set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'
set output zs_svg
replot
unset output
