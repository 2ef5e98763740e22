# compare.gp -- the strategy decision in four panels. Written by `zerosim plot`; redraw with `gnuplot compare.gp` in this
# directory (the data is in compare.dat, described by its '#' header). Edit freely.
if (!exists('zs_png')) zs_png = 'compare.png'
if (!exists('zs_svg')) zs_svg = 'compare.svg'
GiB = 2.0**30          # bytes
GB = 1.0e9             # bytes
set datafile missing '?'
set border lw 1.2
set grid ytics lc rgb '#d0d0d0'
set key noenhanced
hbm = 85899345920    # bytes: the GPU's memory
ymax = 395136991232   # bytes: top of the memory panel
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics rotate by -20 scale 0 font ',9'
set key off
set grid ytics lc rgb '#dddddd'
if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
} else {
    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced
}
set output zs_png
set multiplot layout 2,2 title 'Which strategy? llama-2-70b on a100-80gb (80.00 GiB HBM), 64 GPUs = 8 node(s) x 8' font ',11'
set xrange [-0.6:3.6]
set title 'memory per GPU (dashed: the GPU; bars past the top are cut)'
set ylabel 'GiB'
set yrange [0:ymax/GiB]
plot 'compare.dat' using ($3/GiB):xtic(2) with boxes lc rgb '#4e79a7', hbm/GiB with lines dt 2 lw 2.5 lc rgb '#c00000', '' using 0:($3 > ymax/1.1 ? NaN : $3/GiB):(sprintf('%.1f', $3/GiB)) with labels offset 0,0.7 font ',9', '' using 0:($3 > ymax/1.1 ? ymax/GiB*0.9 : NaN):(sprintf('%.1f', $3/GiB)) with labels tc rgb 'white' font ',9'
set title 'largest micro-batch (hatched: with full recompute)'
set ylabel 'sequences per GPU'
set yrange [0:7.9800000000000004]
set boxwidth 0.35
plot 'compare.dat' using ($0-0.18):5 with boxes lc rgb '#59a14f', '' using ($0+0.18):6:xtic(2) with boxes fs pattern 4 lc rgb '#59a14f', '' using ($0-0.18):5:(sprintf('%g', $5)) with labels offset 0,0.7 font ',9', '' using ($0+0.18):6:(sprintf('%g', $6)) with labels offset 0,0.7 font ',9'
set boxwidth 0.7
set title 'fewest GPUs that fit (and what they offload)'
set ylabel 'GPUs'
set yrange [0:40.960000000000001]
plot 'compare.dat' using 7:xtic(2) with boxes lc rgb '#f28e2b', '' using 0:7:(sprintf("%g\n%s", $7, strcol(10) eq 'none' ? 'no offload' : strcol(10))) with labels offset 0,1.6 font ',9'
set title 'step time of the fastest config'
set ylabel 'seconds'
set yrange [0:12.259811391814297]
plot 'compare.dat' using 8:xtic(2) with boxes lc rgb '#e15759', '' using 0:8:(sprintf('%.3g', $8)) with labels offset 0,0.7 font ',9'
unset multiplot
unset output
set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'
set output zs_svg
set multiplot layout 2,2 title 'Which strategy? llama-2-70b on a100-80gb (80.00 GiB HBM), 64 GPUs = 8 node(s) x 8' font ',11'
set xrange [-0.6:3.6]
set title 'memory per GPU (dashed: the GPU; bars past the top are cut)'
set ylabel 'GiB'
set yrange [0:ymax/GiB]
plot 'compare.dat' using ($3/GiB):xtic(2) with boxes lc rgb '#4e79a7', hbm/GiB with lines dt 2 lw 2.5 lc rgb '#c00000', '' using 0:($3 > ymax/1.1 ? NaN : $3/GiB):(sprintf('%.1f', $3/GiB)) with labels offset 0,0.7 font ',9', '' using 0:($3 > ymax/1.1 ? ymax/GiB*0.9 : NaN):(sprintf('%.1f', $3/GiB)) with labels tc rgb 'white' font ',9'
set title 'largest micro-batch (hatched: with full recompute)'
set ylabel 'sequences per GPU'
set yrange [0:7.9800000000000004]
set boxwidth 0.35
plot 'compare.dat' using ($0-0.18):5 with boxes lc rgb '#59a14f', '' using ($0+0.18):6:xtic(2) with boxes fs pattern 4 lc rgb '#59a14f', '' using ($0-0.18):5:(sprintf('%g', $5)) with labels offset 0,0.7 font ',9', '' using ($0+0.18):6:(sprintf('%g', $6)) with labels offset 0,0.7 font ',9'
set boxwidth 0.7
set title 'fewest GPUs that fit (and what they offload)'
set ylabel 'GPUs'
set yrange [0:40.960000000000001]
plot 'compare.dat' using 7:xtic(2) with boxes lc rgb '#f28e2b', '' using 0:7:(sprintf("%g\n%s", $7, strcol(10) eq 'none' ? 'no offload' : strcol(10))) with labels offset 0,1.6 font ',9'
set title 'step time of the fastest config'
set ylabel 'seconds'
set yrange [0:12.259811391814297]
plot 'compare.dat' using 8:xtic(2) with boxes lc rgb '#e15759', '' using 0:8:(sprintf('%.3g', $8)) with labels offset 0,0.7 font ',9'
unset multiplot
unset output
