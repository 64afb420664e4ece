#!/usr/bin/env bash
# Draws bench's CSV (build/bench/bench --csv) as one SVG: a panel per cipher, GB/s against the
# message size (log scale), a colour per operation (bulk, seal, open, open-tag-first), aesfast
# solid and the default provider dashed (absent where the reference has no such cipher: GCM-SIV
# on OpenSSL 3.0).
# With --ratio, the speedup instead: the CSV's ratio (aesfast / default, the median of the
# per-round ratios) against the message size, both axes log scale, a line at 1.0 (above it
# aesfast is faster), a colour per operation, the per-message set-ups (rekey, speed, newctx,
# copy) dotted beside them (the GB/s panels leave those out: eight pairs of lines would hide each
# other); a cipher the reference lacks has no panel.
#
#   bench/plot.sh [--ratio] CSV OUT.svg|OUT.png TITLE   needs gnuplot (gnuplot-nox); SVG, or PNG by name
set -euo pipefail
ratio=0
if [ "${1:-}" = --ratio ]; then ratio=1; shift; fi
[ $# -eq 3 ] || { echo "usage: $0 [--ratio] CSV OUT.svg|OUT.png TITLE" >&2; exit 2; }
csv=$1 out=$2 title=$3
command -v gnuplot >/dev/null || { echo "bench/plot.sh: no gnuplot (apt-get install gnuplot-nox)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# One data file per cipher and operation ("size aesfast default ratio", "?" where a figure is
# missing), and the ciphers in the CSV's order (with --ratio, those with a ratio only).
awk -F, -v dir="$tmp" -v ratio=$ratio 'NR > 1 && $1 != "cipher" && NF >= 5 {
    if (ratio && $6 == "") next
    if (!($1 in seen)) { seen[$1] = ++n; print $1 > (dir "/ciphers") }
    f = dir "/" seen[$1] "-" $2 ".dat"
    print $3, ($4 == "" ? "?" : $4), ($5 == "" ? "?" : $5), ($6 == "" ? "?" : $6) > f
  }' "$csv"
[ -s "$tmp/ciphers" ] || { echo "bench/plot.sh: no rows in $csv" >&2; exit 1; }
mapfile -t ciphers <"$tmp/ciphers"
n=${#ciphers[@]} cols=3
[ "$n" -ge 3 ] || cols=$n
rows=$(((n + cols - 1) / cols))
size="$((cols * 420)),$((rows * 330 + 40))"
case $out in
  *.png) terminal="pngcairo size $size font \"sans,10\" background \"white\"" ;;
  *) terminal="svg size $size dynamic font \"sans,11\" background \"white\"" ;;
esac
if [ $ratio -eq 1 ]; then
  yaxis='set ylabel "aesfast / default"
set key top center horizontal outside font ",9"
set logscale y 2
set ytics ("0.5" 0.5, "0.7" 0.7, "1" 1, "1.5" 1.5, "2" 2, "3" 3, "4" 4, "6" 6, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128)
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lc rgb "black" lw 1.5 front'
else
  yaxis='set ylabel "GB/s"
set yrange [0:*]'
fi

{
  cat <<EOF
set terminal $terminal
set output "$out"
set datafile missing "?"
set logscale x 2
set xtics ("16" 16, "64" 64, "256" 256, "1k" 1024, "16k" 16384, "1M" 1048576)
set grid
set key top left font ",9" spacing 0.9
set xlabel "message bytes"
$yaxis
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 0.5
set style line 2 lc rgb "#d62728" lw 2 pt 5 ps 0.5
set style line 3 lc rgb "#2ca02c" lw 2 pt 9 ps 0.5
set style line 4 lc rgb "#9467bd" lw 2 pt 11 ps 0.5
set style line 5 lc rgb "#ff7f0e" lw 2 pt 13 ps 0.5 dt 3
set style line 6 lc rgb "#8c564b" lw 2 pt 6 ps 0.5 dt 3
set style line 7 lc rgb "#e377c2" lw 2 pt 4 ps 0.5 dt 3
set style line 8 lc rgb "#17becf" lw 2 pt 8 ps 0.5 dt 3
set multiplot layout $rows,$cols title "$title" font ",13"
EOF
  for i in "${!ciphers[@]}"; do
    idx=$((i + 1)) plots=()
    for op in bulk seal open open-tag-first rekey speed newctx copy; do
      f=$tmp/$idx-$op.dat
      [ -s "$f" ] || continue
      case $op in bulk) ls=1 ;; seal) ls=2 ;; open) ls=3 ;; open-tag-first) ls=4 ;; rekey) ls=5 ;;
        speed) ls=6 ;; newctx) ls=7 ;; copy) ls=8 ;; esac
      [ $ratio -eq 1 ] || [ $ls -le 4 ] || continue
      if [ $ratio -eq 1 ]; then
        plots+=("\"$f\" using 1:4 with linespoints ls $ls title \"$op\"")
        continue
      fi
      plots+=("\"$f\" using 1:2 with linespoints ls $ls title \"$op aesfast\"")
      if awk '$3 != "?" { found = 1 } END { exit !found }' "$f"; then
        plots+=("\"$f\" using 1:3 with linespoints ls $ls dt 2 title \"$op default\"")
      fi
    done
    if [ $ratio -eq 1 ]; then # the panel's range, with 1.0 inside it
      cat "$tmp/$idx"-*.dat | awk '$4 != "?" { if (n++ == 0 || $4 < lo) lo = $4; if (n == 1 || $4 > hi) hi = $4 }
        END { lo = lo * 0.9; hi = hi * 1.1; if (lo > 0.8) lo = 0.8; if (hi < 1.25) hi = 1.25
              printf "set yrange [%g:%g]\n", lo, hi }'
    fi
    echo "set title \"${ciphers[$i]}\""
    (IFS=,; echo "plot ${plots[*]}")
  done
  echo "unset multiplot"
} >"$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "$out"
