# comm.gp -- bytes sent per GPU per step by link level, one stacked bar per strategy. Written by `zerosim plot`; redraw with `gnuplot comm.gp` in this
# directory (the data is in comm.dat, described by its '#' header). Edit freely.
if (!exists('zs_png')) zs_png = 'comm.png'
if (!exists('zs_svg')) zs_svg = 'comm.svg'
GiB = 2.0**30          # bytes
GB = 1.0e9             # bytes
set datafile missing '?'
set border lw 1.2
set grid ytics lc rgb '#d0d0d0'
set key noenhanced
set title 'Communication volume per GPU per step' . "\n" . 'llama-2-70b on a100-80gb (80.00 GiB HBM), 64 GPUs = 8 node(s) x 8' . "\n" . 'micro-batch 1 x seq 4096, grad-accum 1, bf16 adamw, checkpointing full' font ',12'
set ylabel 'sent per GPU per step (GB = 10^9 bytes)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border rgb '#404040'
set boxwidth 0.6 relative
set key outside bottom center horizontal Left reverse maxcols 4 samplen 2
set xrange [-0.6:3.6]
set yrange [0:640.956]
if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
} else {
    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced
}
set output zs_png
plot 'comm.dat' using ($4/GB):xtic(2) title 'NVLink (intra-node)' lc rgb '#76b7b2', \
     '' using ($5/GB) title 'network (inter-node)' lc rgb '#4e79a7', \
     '' using ($6/GB) title 'PCIe (host offload)' lc rgb '#b07aa1', \
     '' using 0:(column(3) > 0 ? $8/GB : NaN) with points pt 9 ps 1.8 lc rgb '#c00000' title 'ZeRO paper ideal (data-parallel traffic only)', \
     '' using 0:(($7 > $8 ? $7 : $8)/GB):(column(3) > 0 ? sprintf('%.1f GB', $7/GB) : 'not applicable') with labels offset 0,1.3 notitle
unset output
set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'
set output zs_svg
replot
unset output
