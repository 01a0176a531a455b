# Draws one figure: several "bytes value" series against message size on a log2 x axis.
# Called by plot_zipbench.sh with -e 'out="..."; ttl="..."; ylab="..."; files="a b"; names="x y";
# logy=1; unity=0' (names use "_" for spaces; unity=1 draws the break-even line y = 1). A series
# whose name ends in "-zip-raw" (speedup of zip with the codec off) is dashed, in the colour of
# the series before it (its op's zip line).
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
if (unity) set yrange [0:*]
endsraw(s) = strlen(s) >= 8 && s[strlen(s) - 7:strlen(s)] eq "-zip-raw"
colours = "#9400d3 #009e73 #56b4e9 #e69f00 #0072b2 #e51e10 #000000 #f0e442 #a0522d #808080"
c = 0
do for [i=1:words(files)] {
    if (!endsraw(word(names, i)) || i == 1) { c = c % words(colours) + 1 }
    dash = endsraw(word(names, i)) ? 2 : 1
    set linetype (100 + i) lw 2 lc rgb word(colours, c) dt dash
}
plot for [i=1:words(files)] word(files, i) using 1:2 title system("echo ".word(names, i)." | tr _ ' '") lt (100 + i)
