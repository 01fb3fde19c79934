#!/usr/bin/env python3
"""floors.py: the floor plan of src/ holds (issue 30).

  python3 tests/contract/floors.py BUILD BIN  (make check-floors)

- an object of a src/ floor (base < topo < spectra < place) calls only
  functions defined on its own floor or below (nm of build/src/*/*.o);
- no circle between src/ files: the graph "a.o calls a function defined in
  b.o" has no cycle;
- an include that points up does not compile: a file on each floor that
  includes a header of the floor above fails with the Makefile's include
  path for that floor;
- dpsgd-train does not contain topogen's code (no tg_* or topogen_*, so
  no topogen_parse_args, in nm BIN/dpsgd-train);
- no `main` outside the programs' cli/ folders (nm of every library
  object under BUILD/src, BUILD/topo, BUILD/train);
- no hand-written Fortran prototype (`extern ... name_(`) in src/, topo/,
  train/ or tests/: LAPACK and BLAS come from src/base/cm_lapack.h.
Prints one line per violation; exits 1 on any.
"""
import glob, os, re, subprocess, sys, tempfile

FLOORS = ['base', 'topo', 'spectra', 'place']
HEADER = {'topo': 'cm_topo.h', 'spectra': 'cm_mixing.h', 'place': 'cm_place.h'}
build = sys.argv[1] if len(sys.argv) > 1 else 'build'
bindir = sys.argv[2] if len(sys.argv) > 2 else 'bin'
bad = []


def nm(path):
    out = subprocess.run(['nm', path], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBRW':
            defined.add(p[2])
        elif len(p) == 2 and p[0] == 'U':
            undefined.add(p[1])
    return defined, undefined


objs = sorted(glob.glob(os.path.join(build, 'src', '*', '*.o')))
if not objs:
    sys.exit('floors: no objects under %s/src (build first)' % build)
where, needs = {}, {}
for o in objs:
    d, u = nm(o)
    for s in d:
        where[s] = o
    needs[o] = u
floor = {o: FLOORS.index(o.split(os.sep)[-2]) for o in objs}
calls = {o: set() for o in objs}
for o in objs:
    for s in sorted(needs[o]):
        t = where.get(s)
        if t and t != o:
            calls[o].add(t)
            if floor[t] > floor[o]:
                bad.append('up: %s calls %s of %s' % (o, s, t))

state = {}


def visit(v, path):
    state[v] = 1
    path.append(v)
    for w in sorted(calls[v]):
        if state.get(w) == 1:
            bad.append('circle: ' + ' -> '.join(path[path.index(w):] + [w]))
        elif w not in state:
            visit(w, path)
    path.pop()
    state[v] = 2


for o in objs:
    if o not in state:
        visit(o, [])

# the Makefile's include path of each floor
make = subprocess.run(
    ['make', '--no-print-directory', '-s', '-f', 'Makefile', '-f', '-',
     'floors-print'],
    input='floors-print:\n\t@echo "$(INC_SBASE)|$(INC_STOPO)|$(INC_SSPEC)"\n',
    capture_output=True, text=True,
    # run from `make check` (parallel, recursive): the parent's MAKEFLAGS
    # would bring its jobserver and "Entering directory" lines into stdout
    env={k: v for k, v in os.environ.items()
         if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')})
incs = make.stdout.strip().split('|')
if len(incs) != 3:
    bad.append('cannot read INC_SBASE/INC_STOPO/INC_SSPEC from the Makefile')
else:
    with tempfile.TemporaryDirectory() as tmp:
        for lower, inc in zip(FLOORS, incs):
            upper = FLOORS[FLOORS.index(lower) + 1]
            src = os.path.join(tmp, 'up.c')
            with open(src, 'w') as f:
                f.write('#include "%s"\nint x;\n' % HEADER[upper])
            r = subprocess.run(['cc', '-fsyntax-only'] + inc.split() + [src],
                               capture_output=True)
            if r.returncode == 0:
                bad.append('include up compiles: %s sees %s'
                           % (lower, HEADER[upper]))
            # the floor's own header does compile (the probe is sound)
            with open(src, 'w') as f:
                f.write('#include "%s"\nint x;\n' % 'cm_status.h')
            if subprocess.run(['cc', '-fsyntax-only'] + inc.split() + [src],
                              capture_output=True).returncode != 0:
                bad.append('probe broken: %s cannot include cm_status.h'
                           % lower)

train = os.path.join(bindir, 'dpsgd-train')
topo_syms = sorted(s for s in nm(train)[0]
                   if s.startswith('tg_') or s.startswith('topogen_'))
if topo_syms:
    bad.append('%s contains topogen\'s code (%s): it must link src/ alone'
               % (train, ', '.join(topo_syms[:5])))

for o in sorted(glob.glob(os.path.join(build, '**', '*.o'), recursive=True)):
    rel = os.path.relpath(o, build).split(os.sep)
    if rel[0] == 'mpi':
        rel = rel[1:]
    if rel[0] not in ('src', 'topo', 'train') or 'cli' in rel:
        continue
    if 'main' in nm(o)[0]:
        bad.append('main outside a cli/ folder: %s' % o)

fortran = re.compile(r'^\s*extern\s+[^;(]*\b[a-z][a-z0-9]*_\s*\(', re.M)
for root in ('src', 'topo', 'train', 'tests'):
    for path in sorted(glob.glob(os.path.join(root, '**', '*.[ch]'),
                                 recursive=True)):
        with open(path, errors='replace') as f:
            for m in fortran.finditer(f.read()):
                bad.append('hand-written Fortran prototype in %s: %s'
                           % (path, m.group(0).strip()))

for b in bad:
    print('floors: ' + b)
print('floors: %d objects, %d violations' % (len(objs), len(bad)))
sys.exit(1 if bad else 0)
