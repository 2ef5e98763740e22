# max-model.gp -- largest trainable model against the number of GPUs, one line per strategy. Written by `zerosim plot`; redraw with `gnuplot max-model.gp` in this
# directory (the data is in max-model.dat, described by its '#' header). Edit freely.
if (!exists('zs_png')) zs_png = 'max-model.png'
if (!exists('zs_svg')) zs_svg = 'max-model.svg'
GiB = 2.0**30          # bytes
GB = 1.0e9             # bytes
set datafile missing '?'
set border lw 1.2
set grid ytics lc rgb '#d0d0d0'
set key noenhanced
set title 'Largest trainable model vs number of GPUs' . "\n" . 'llama-2-70b on a100-80gb (80.00 GiB HBM)' . "\n" . 'depth scaled; bf16 adamw, seq 4096, micro-batch 1, full recompute; searched: TP/PP/offload' font ',12'
set xlabel 'GPUs (log scale)'
set ylabel 'largest model (billions of parameters, log scale)'
set logscale x 2
set logscale y 10
set format y '%g'
set xrange [0.769231:1331.2]
set yrange [1.97346:15443.9]
set grid xtics ytics mytics lc rgb '#d0d0d0', lc rgb '#ececec'
set key outside right top vertical Left reverse samplen 3
if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
} else {
    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced
}
set output zs_png
plot 'max-model.dat' using 1:($2/1e9):xtic(1) with linespoints lw 2 pt 5 ps 1.2 lc rgb '#1f77b4' title 'DDP', \
     'max-model.dat' using 1:($4/1e9) with linespoints lw 2 pt 7 ps 1.2 lc rgb '#ff7f0e' title 'ZeRO-1', \
     'max-model.dat' using 1:($6/1e9) with linespoints lw 2 pt 9 ps 1.2 lc rgb '#2ca02c' title 'ZeRO-2', \
     'max-model.dat' using 1:($8/1e9) with linespoints lw 2 pt 11 ps 1.2 lc rgb '#d62728' title 'ZeRO-3'
unset output
set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'
set output zs_svg
replot
unset output
