# One figure of simscale-plot: "x value" series on log2 x against a y = 1 line. Called with
# -e 'out="..."; ttl="..."; xlab="..."; files="a b"; names="x y"'. A series whose name ends in
# "-zip-raw" or "-auto" is dashed, in the colour of the series before it.
set terminal pngcairo size 900,600 noenhanced font ",11"
set output out
set title ttl
set xlabel xlab
set ylabel "speedup (x)"
set logscale x 2
set grid
set key outside right top
set style data linespoints
set pointsize 0.8
set yrange [0:*]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black"
dashed(s) = (strlen(s) >= 8 && s[strlen(s) - 7:strlen(s)] eq "-zip-raw") || (strlen(s) >= 5 && s[strlen(s) - 4:strlen(s)] eq "-auto")
colours = "#9400d3 #009e73 #56b4e9 #e69f00 #0072b2 #e51e10 #000000"
c = 0
do for [i=1:words(files)] {
    if (!dashed(word(names, i)) || i == 1) { c = c % words(colours) + 1 }
    dash = dashed(word(names, i)) ? 2 : 1
    set linetype (100 + i) lw 2 lc rgb word(colours, c) dt dash
}
plot for [i=1:words(files)] word(files, i) using 1:2 title word(names, i) lt (100 + i)
