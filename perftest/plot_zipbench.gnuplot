# Draws one figure: several "bytes value" series against message size on a log2 x axis.
# Called by plot_zipbench.sh with -e 'out="..."; ttl="..."; ylab="..."; files="a b"; names="x y";
# logy=1; unity=0' (names use "_" for spaces; unity=1 draws the break-even line y = 1).
set terminal pngcairo size 900,600 noenhanced font ",11"
set output out
set title ttl
set xlabel "message size (bytes per rank)"
set ylabel ylab
set logscale x 2
set format x "%.0b%B"
if (logy) set logscale y 10
set grid
set key left top
set style data linespoints
set pointsize 0.8
if (unity) set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black"
plot for [i=1:words(files)] word(files, i) using 1:2 title system("echo ".word(names, i)." | tr _ ' '") lw 2
