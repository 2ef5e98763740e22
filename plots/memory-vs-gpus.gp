# memory-vs-gpus.gp -- memory per GPU against the number of GPUs, one line per strategy. Written by `zerosim plot`; redraw with `gnuplot memory-vs-gpus.gp` in this
# directory (the data is in memory-vs-gpus.dat, described by its '#' header). Edit freely.
if (!exists('zs_png')) zs_png = 'memory-vs-gpus.png'
if (!exists('zs_svg')) zs_svg = 'memory-vs-gpus.svg'
GiB = 2.0**30          # bytes
GB = 1.0e9             # bytes
set datafile missing '?'
set border lw 1.2
set grid ytics lc rgb '#d0d0d0'
set key noenhanced
set title 'Memory per GPU vs number of GPUs' . "\n" . 'llama-2-70b on a100-80gb (80.00 GiB HBM)' . "\n" . 'micro-batch 1 x seq 4096, grad-accum 1, bf16 adamw, checkpointing full' font ',12'
set xlabel 'GPUs (log scale)'
set ylabel 'memory per GPU (GiB = 2^30 bytes, log scale)'
set logscale x 2
set logscale y 10
set format y '%g'
set xrange [0.769231:1331.2]
set yrange [5.2592:1920.77]
set grid xtics ytics mytics lc rgb '#d0d0d0', lc rgb '#ececec'
set key outside right top vertical Left reverse samplen 3
if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
} else {
    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced
}
set output zs_png
plot 'memory-vs-gpus.dat' using 1:($2/GiB):xtic(1) with linespoints lw 2 pt 5 ps 1.2 lc rgb '#1f77b4' title 'DDP', \
     'memory-vs-gpus.dat' using 1:($3/GiB) with linespoints lw 2 pt 7 ps 1.2 lc rgb '#ff7f0e' title 'ZeRO-1', \
     'memory-vs-gpus.dat' using 1:($4/GiB) with linespoints lw 2 pt 9 ps 1.2 lc rgb '#2ca02c' title 'ZeRO-2', \
     'memory-vs-gpus.dat' using 1:($5/GiB) with linespoints lw 2 pt 11 ps 1.2 lc rgb '#d62728' title 'ZeRO-3', \
     'memory-vs-gpus.dat' using 1:($6/GiB) with lines dt 2 lw 2 lc rgb '#555555' title 'non-sharded floor', \
     'memory-vs-gpus.dat' using 1:($7/GiB) with lines dt 4 lw 2.5 lc rgb '#c00000' title sprintf('GPU HBM %.4g GiB', 85899345920/GiB)
unset output
set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'
set output zs_svg
replot
unset output
