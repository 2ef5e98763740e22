# step.gp -- step time breakdown, one stacked bar per strategy. Written by `zerosim plot`; redraw with `gnuplot step.gp` in this
# directory (the data is in step.dat, described by its '#' header). Edit freely.
if (!exists('zs_png')) zs_png = 'step.png'
if (!exists('zs_svg')) zs_svg = 'step.svg'
GiB = 2.0**30          # bytes
GB = 1.0e9             # bytes
set datafile missing '?'
set border lw 1.2
set grid ytics lc rgb '#d0d0d0'
set key noenhanced
set title 'Step time breakdown' . "\n" . 'llama-2-70b on a100-80gb (80.00 GiB HBM), 64 GPUs = 8 node(s) x 8' . "\n" . 'micro-batch 1 x seq 4096, grad-accum 1, bf16 adamw, checkpointing full' font ',12'
set ylabel 'time per step (seconds)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border rgb '#404040'
set boxwidth 0.6 relative
set key outside bottom center horizontal Left reverse maxcols 3 samplen 2
set xrange [-0.6:3.6]
set yrange [0:17.1355]
if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
} else {
    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced
}
set output zs_png
plot 'step.dat' using 4:xtic(2) title 'compute (fwd + bwd + recompute)' lc rgb '#4e79a7', \
     'step.dat' using 5 title 'exposed communication' lc rgb '#e15759', \
     'step.dat' using 6 title 'optimizer step' lc rgb '#59a14f', \
     'step.dat' using 7 title 'pipeline bubble' lc rgb '#bab0ac', \
     'step.dat' using 8 title 'exposed offload (PCIe)' lc rgb '#b07aa1', \
     'step.dat' using 0:(column(3) > 0 && column(12) < 1 ? $9 : NaN):(0.6) with boxes fill pattern 4 transparent border lc rgb '#c00000' lc rgb '#c00000' title 'does not fit in memory (time if it did)', \
     'step.dat' using 0:9:(column(3) > 0 ? (column(12) > 0 ? sprintf("%.2f s\nMFU %.1f%%", $9, 100*$11) : sprintf("%.2f s\ndoes not fit", $9)) : 'not applicable') with labels offset 0,1.7 notitle
unset output
set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'
set output zs_svg
replot
unset output
