# validate.gp -- predicted against measured step time, one point style per strategy. Written by `zerosim plot`; redraw with `gnuplot validate.gp` in this
# directory (the data is in validate.dat, described by its '#' header). Edit freely.
if (!exists('zs_png')) zs_png = 'validate.png'
if (!exists('zs_svg')) zs_svg = 'validate.svg'
GiB = 2.0**30          # bytes
GB = 1.0e9             # bytes
set datafile missing '?'
set border lw 1.2
set grid ytics lc rgb '#d0d0d0'
set key noenhanced
set title 'Predicted vs measured step time' . "\n" . '73 runs from published_runs.csv: mean absolute error 5.1%' font ',12'
set xlabel 'measured step time (seconds, log scale)'
set ylabel 'predicted step time (seconds, log scale)'
set logscale xy 10
set format x '%g'
set format y '%g'
set xrange [0.420513:383.295]
set yrange [0.420513:383.295]
set size ratio -1
set grid xtics ytics mxtics mytics lc rgb '#d0d0d0', lc rgb '#ececec'
set key inside left top vertical Left reverse box opaque samplen 2
set samples 400
set style fill transparent solid 0.18 noborder
if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
} else {
    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced
}
set output zs_png
plot [0.420513:383.295] '+' using 1:(0.8*$1):(1.2*$1) with filledcurves lc rgb '#888888' title '+/-20% band', \
     x with lines lw 1.5 lc rgb '#333333' title 'y = x', \
     'validate.dat' using 4:(strcol(2) eq 'ddp' ? $5 : NaN) with points pt 7 ps 1.4 lc rgb '#1f77b4' title 'DDP (24 runs)', \
     'validate.dat' using 4:(strcol(2) eq 'zero1' ? $5 : NaN) with points pt 5 ps 1.4 lc rgb '#ff7f0e' title 'ZeRO-1 (1 run)', \
     'validate.dat' using 4:(strcol(2) eq 'zero3' ? $5 : NaN) with points pt 11 ps 1.4 lc rgb '#d62728' title 'ZeRO-3 (48 runs)'
unset output
set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'
set output zs_svg
replot
unset output
