#!/usr/bin/env bash
# The shape of the tree (docs/style.md): lib/ is a library the applets use,
# never the other way round; its modules call each other in one direction;
# every lib source has the header of its name.
#
#   structure.lib_no_applet_header  no lib/ file includes, directly or through
#       the headers it includes, a header of the applets: a file under
#       applets/, or scripts/gen-applets.sh's per-applet applet_opts.h
#       (include/applet.h itself is lib/applet.c's header, the interface the
#       applets and the daemon share; if it pulls applet_opts.h in, every
#       file that includes it is listed, with the chain)
#   structure.lib_calls_no_applet   no lib object refers to a symbol an applet
#       object defines, nor to any applet's entry NAME_main (the names
#       scripts/gen-applets.sh gives them), whether or not that applet is
#       configured in; from the generated table (gen/applets.o) lib may use
#       applet_table, applet_count, applet_env_names (the options'
#       variables) and applet_help_* (the help texts, gzip'ed), the
#       dispatch that names no applet
#   structure.lib_no_cycles         the calls between lib's modules (symbols
#       one object uses and another defines, from nm over build/obj/lib)
#       have no circle. A module is one source file: lib/X.c, and each file
#       of lib/daemon/ and lib/regex/ too, because the circle to break is
#       the one inside the daemon (its loop calling conn, proc and listen,
#       which call the loop back)
#   structure.lib_headers           include/X.h for every lib/X.c; lib/D/ (the
#       daemon, the regex engine) is one subsystem with one public header,
#       include/D.h; its files share private headers inside lib/D/. A name
#       that is a C library header's (glob.h, regex.h) is flagged as such:
#       that module needs another name
#   structure.lib_prefixes          every name a lib object exports starts
#       with its module's prefix: X_ for lib/X.c, D_ or F_ for lib/D/F.c,
#       or wfs_ for an operation (what applets and the daemon ask of lib).
#       The exceptions are listed below with their reason
#   structure.tests_by_applet       every applet of the build's table
#       (build/gen/applets.c, which scripts/gen-applets.sh writes from the
#       configured applets) has its tests in tests/t_NAME.sh (`-` in NAME
#       becoming `_`), as docs/testing.md says; the exceptions are listed
#       below with their reason. Skipped before a build
#
# The first and the headers' check read the sources only; the others need the objects
# of the build (make), and are skipped when those are missing or older than
# their sources. A failure lists every offender on its line; a circle's
# calls, with their symbols, follow on lines of their own.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
obj=build/obj

mapfile -t lib_srcs < <(find lib -name '*.c' | sort)
mapfile -t lib_files < <(find lib -name '*.[ch]' | sort)

# ---- a. no applet header ----
# Every #include "..." of lib/ and include/, resolved as the compiler does
# (the including file's directory, then include/, then build/gen/; a name
# found in neither is taken as generated, gen/NAME, even before a build),
# then followed from each lib file until it reaches an applet header.
{
	find lib include applets -name '*.[ch]' | sed 's/^/F /'
	grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "${lib_files[@]}" include/*.h |
		sed 's/^\([^:]*\):[^"]*"\([^"]*\)".*/I \1 \2/'
} | awk -v files="${lib_files[*]}" '
	function norm(p,    n, parts, out, k, i) {
		n = split(p, parts, "/")
		k = 0
		for (i = 1; i <= n; i++) {
			if (parts[i] == "." || parts[i] == "") continue
			if (parts[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
			out[++k] = parts[i]
		}
		p = out[1]
		for (i = 2; i <= k; i++) p = p "/" out[i]
		return p
	}
	function applet_header(f) {
		return f ~ /^applets\// || f == "gen/applet_opts.h" || f == "gen/applets.c"
	}
	# The include path from f to an applet header, or "".
	function chain(f, depth,    i, g, sub_) {
		if (depth > 20 || (f in done)) return done[f]
		done[f] = ""
		for (i = 1; i <= ninc[f]; i++) {
			g = inc[f, i]
			if (applet_header(g)) return done[f] = g
			if (g ~ /^gen\//) continue
			sub_ = chain(g, depth + 1)
			if (sub_ != "") return done[f] = g " -> " sub_
		}
		return ""
	}
	$1 == "F" { exists[$2] = 1; next }
	$1 == "I" {
		d = $2
		sub(/\/[^\/]*$/, "", d)
		r = norm(d "/" $3)
		if (!(r in exists) && r !~ /^applets\//)
			r = ("include/" $3 in exists) ? "include/" $3 : "gen/" $3
		inc[$2, ++ninc[$2]] = r
	}
	END {
		n = split(files, fl, " ")
		for (i = 1; i <= n; i++) {
			c = chain(fl[i], 0)
			if (c != "") print fl[i] " (" c ")"
		}
	}
' >"$TEST_TMP/applet_includes"
if [ ! -s "$TEST_TMP/applet_includes" ]; then
	pass structure.lib_no_applet_header
else
	fail structure.lib_no_applet_header "$(wc -l <"$TEST_TMP/applet_includes") lib files: $(awk 'BEGIN { ORS = "" } { print (NR > 1 ? "; " : "") $0 }' "$TEST_TMP/applet_includes")"
fi

# ---- objects for b and c ----
have_objs=1
why=""
for f in "${lib_srcs[@]}"; do
	o=$obj/${f%.c}.o
	if [ ! -f "$o" ]; then
		have_objs=0
		why="$o missing"
		break
	fi
	if [ "$f" -nt "$o" ]; then
		have_objs=0
		why="$o is older than $f"
		break
	fi
done
if [ $have_objs = 1 ] && ! command -v nm >/dev/null 2>&1; then
	have_objs=0
	why="nm missing (binutils)"
fi

# syms: "D OBJECT SYMBOL" for every global an object defines, "U OBJECT
# SYMBOL" for every one it uses; OBJECT is its source (lib/x.c,
# applets/y.c, gen/applets.c).
syms() {
	local objs=() f
	# Objects of the sources there are: one left behind by a renamed or
	# removed file does not count.
	for f in "${lib_srcs[@]}" applets/*.c gen/applets.c; do
		[ -f "$obj/${f%.c}.o" ] && objs+=("$obj/${f%.c}.o")
	done
	# -A: "FILE: SYMBOL TYPE ..." per line, one nm for all the objects.
	{
		nm -A -P -g --defined-only "${objs[@]}" | sed 's/^/D /'
		nm -A -P -u "${objs[@]}" | sed 's/^/U /'
	} | awk -v obj="$obj/" '{
		src = substr($2, length(obj) + 1)
		sub(/\.o:$/, ".c", src)
		print $1, src, $3
	}'
}

if [ $have_objs = 0 ]; then
	skip structure.lib_calls_no_applet "$why: run make"
	skip structure.lib_no_cycles "$why: run make"
else
	syms >"$TEST_TMP/syms"

	# ---- a. no calls into applets ----
	# Every declared applet's entry, enabled or not: "apply-patch" is
	# apply_patch_main.
	for f in applets/*.c; do
		sed -n 's/^ \* APPLET(\([^,]*\),.*/\1/p' "$f" | tr - _ | sed 's/$/_main/'
	done >"$TEST_TMP/entries"
	calls=$(awk '
		FILENAME ~ /entries$/ { entry[$1] = 1; next }
		$1 == "D" && $2 !~ /^lib\// { def[$3] = $2 }
		$1 == "U" && $2 ~ /^lib\// { use[++n] = $2 " " $3 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], u, " ")
				s = u[2]
				if (s in entry || (s in def && !(def[s] == "gen/applets.c" &&
				    (s == "applet_table" || s == "applet_count" || s == "applet_env_names" || s ~ /^applet_help_(gz|gz_size|size)$/))))
					print u[1] " -> " s (s in def ? " (" def[s] ")" : "")
			}
		}
	' "$TEST_TMP/entries" "$TEST_TMP/syms" | sort -u)
	if [ -z "$calls" ]; then
		pass structure.lib_calls_no_applet
	else
		fail structure.lib_calls_no_applet "$(printf '%s\n' "$calls" | awk 'BEGIN { ORS = "" } { print (NR > 1 ? "; " : "") $0 }')"
	fi

	# ---- b. no circles between lib modules ----
	# Edges "FROM TO SYMBOL" between two lib files; the circles are the
	# strongly connected components of more than one file (Tarjan).
	awk '
		$1 == "D" && $2 ~ /^lib\// { def[$3] = $2 }
		$1 == "U" && $2 ~ /^lib\// { use[++n] = $2 " " $3 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], u, " ")
				if ((u[2] in def) && def[u[2]] != u[1])
					print u[1], def[u[2]], u[2]
			}
		}
	' "$TEST_TMP/syms" | sort -u >"$TEST_TMP/edges"
	awk '
		function visit(v,    i, w) {
			index_[v] = low[v] = ++counter
			stack[++sp] = v
			on[v] = 1
			for (i = 1; i <= nout[v]; i++) {
				w = out[v, i]
				if (!(w in index_)) {
					visit(w)
					if (low[w] < low[v]) low[v] = low[w]
				} else if (on[w] && index_[w] < low[v])
					low[v] = index_[w]
			}
			if (low[v] == index_[v]) {
				ncomp++
				size = 0
				do {
					w = stack[sp--]
					on[w] = 0
					comp[w] = ncomp
					size++
				} while (w != v)
				csize[ncomp] = size
			}
		}
		{
			if (!(($1, $2) in seen)) {
				seen[$1, $2] = 1
				out[$1, ++nout[$1]] = $2
			}
			node[$1] = node[$2] = 1
			syms[$1, $2] = syms[$1, $2] (syms[$1, $2] == "" ? "" : " ") $3
			from[NR] = $1; to[NR] = $2
		}
		END {
			# Sorted node order, so the report is stable.
			n = 0
			for (v in node) names[++n] = v
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && names[j - 1] > names[j]; j--) {
					t = names[j]; names[j] = names[j - 1]; names[j - 1] = t
				}
			for (i = 1; i <= n; i++)
				if (!(names[i] in index_)) visit(names[i])
			for (i = 1; i <= n; i++) {
				v = names[i]
				if (csize[comp[v]] < 2) continue
				for (j = 1; j <= nout[v]; j++) {
					w = out[v, j]
					if (comp[w] == comp[v])
						print comp[v], v, w, syms[v, w]
				}
			}
		}
	' "$TEST_TMP/edges" >"$TEST_TMP/circles"
	if [ ! -s "$TEST_TMP/circles" ]; then
		pass structure.lib_no_cycles
	else
		# One FAIL line naming each circle's files, then every call that
		# takes part in one, with the symbols.
		summary=$(awk '
			{ if (!(($1, $2) in seen)) { seen[$1, $2] = 1; files[$1] = files[$1] (files[$1] == "" ? "" : " ") $2 } }
			END { for (c in files) print files[c] }
		' "$TEST_TMP/circles" | sort | awk 'BEGIN { ORS = "" } { print (NR > 1 ? "; " : "") "{" $0 "}" }')
		fail structure.lib_no_cycles "$(awk '{ print $1 }' "$TEST_TMP/circles" | sort -u | wc -l) circle(s) among lib files: $summary"
		awk '{ printf "  %s -> %s:", $2, $3; for (i = 4; i <= NF; i++) printf " %s", $i; print "" }' "$TEST_TMP/circles"
	fi
fi

# ---- c. a header of the module's name ----
# A header named like one of the C library's would shadow it under
# -Iinclude (tests/unit/regex_diff_test.c includes <regex.h>): such a
# module needs another name, and the failure says so.
sysdirs=$(echo | "${CC:-musl-gcc}" -E -Wp,-v -x c - 2>&1 >/dev/null | sed -n 's/^ \(\/.*\)/\1/p')
[ -n "$sysdirs" ] || sysdirs=/usr/include
missing=()
seen=""
for f in "${lib_srcs[@]}"; do
	rel=${f#lib/}
	case $rel in
	*/*)
		d=${rel%%/*}
		h=include/$d.h
		;;
	*) h=include/${rel%.c}.h ;;
	esac
	[ -f "$h" ] && continue
	case " $seen " in *" $h "*) continue ;; esac
	seen="$seen $h"
	for d in $sysdirs; do
		if [ -f "$d/${h#include/}" ]; then
			h="$h (a C library header: rename the module)"
			break
		fi
	done
	missing+=("$h")
done
if [ ${#missing[@]} = 0 ]; then
	pass structure.lib_headers
else
	fail structure.lib_headers "${#missing[@]} missing: $(printf '%s\n' "${missing[@]}" | awk 'BEGIN { ORS = "" } { print (NR > 1 ? "; " : "") $0 }')"
fi

# ---- d. exported names carry the module's prefix ----
# Exceptions: fmt.c replaces musl's printf family by name, and
# libc_own.c its qsort, strstr, strto*, inet_pton, inet_ntop and pthread's
# condition variables, heap.c its malloc family, the internal names musl
# calls it by and pthread's mutexes (the point of
# them: a smaller binary); struct req's functions (req_*) belong to the
# applet interface of lib/applet.c.
allowed_fmt=" dprintf fprintf printf snprintf sprintf vdprintf vfprintf vprintf vsnprintf vsprintf "
allowed_libc_own=" inet_ntop inet_pton qsort qsort_r strstr strtol strtoll strtoul strtoull pthread_cond_init pthread_cond_destroy pthread_cond_wait pthread_cond_signal pthread_cond_broadcast "
allowed_heap=" malloc free calloc realloc __libc_malloc __libc_malloc_impl __libc_free __libc_calloc __libc_realloc __malloc_atfork pthread_mutex_init pthread_mutex_lock pthread_mutex_unlock pthread_mutex_destroy "
if [ $have_objs = 1 ]; then
	bad=()
	for f in "${lib_srcs[@]}"; do
		o=$obj/${f%.c}.o
		[ -f "$o" ] || continue
		rel=${f#lib/}
		file=$(basename "$rel" .c)
		pfx="${file}_"
		case $rel in */*) pfx="${rel%%/*}_ $pfx" ;; esac
		[ "$file" = applet ] && pfx="$pfx req_"
		for sym in $(nm -g --defined-only "$o" | awk '$2 ~ /^[TDBRC]$/ { print $3 }'); do
			ok=0
			[ "$sym" = "$file" ] && ok=1
			for p in $pfx wfs_; do
				case $sym in "$p"*) ok=1 ;; esac
			done
			[ "$file" = fmt ] && case $allowed_fmt in *" $sym "*) ok=1 ;; esac
			[ "$file" = libc_own ] && case $allowed_libc_own in *" $sym "*) ok=1 ;; esac
			[ "$file" = heap ] && case $allowed_heap in *" $sym "*) ok=1 ;; esac
			[ $ok = 1 ] || bad+=("$f:$sym")
		done
	done
	if [ ${#bad[@]} = 0 ]; then
		pass structure.lib_prefixes
	else
		fail structure.lib_prefixes "${#bad[@]} names: ${bad[*]}"
	fi
else
	skip structure.lib_prefixes "$why"
fi

# ---- e. each applet's tests in tests/t_NAME.sh ----
# Applets whose checks live elsewhere, with the reason: "NAME reason".
# None today; an entry here is for an applet that cannot be run on its own
# (an alias, say) and is tested where what it stands for is.
tests_by_applet_exceptions=()
table=build/gen/applets.c
if [ ! -f "$table" ]; then
	skip structure.tests_by_applet "no applet table ($table): run make"
else
	mapfile -t applets < <(sed -n '/^const struct applet applet_table\[\] = {/,/^};/s/^[[:space:]]*{"\([^"]*\)",.*/\1/p' "$table")
	missing=()
	for a in "${applets[@]}"; do
		excused=0
		for e in "${tests_by_applet_exceptions[@]}"; do
			[ "${e%% *}" = "$a" ] && excused=1
		done
		[ $excused = 1 ] || [ -f "tests/t_${a//-/_}.sh" ] || missing+=("$a (tests/t_${a//-/_}.sh)")
	done
	if [ ${#applets[@]} = 0 ]; then
		fail structure.tests_by_applet "no applet found in $table"
	elif [ ${#missing[@]} = 0 ]; then
		pass structure.tests_by_applet
	else
		fail structure.tests_by_applet "${#missing[@]} of ${#applets[@]} applets have no test file: $(printf '%s\n' "${missing[@]}" | awk 'BEGIN { ORS = "" } { print (NR > 1 ? "; " : "") $0 }')"
	fi
fi
