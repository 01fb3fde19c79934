#!/usr/bin/env python3
"""floors.py: the floor plans of src/ and topo/ hold (issue 30).

  python3 tests/contract/floors.py BUILD BIN  (make check-floors)

- an object of a src/ floor (base < topo < spectra < place) calls only
  functions defined on its own floor or below (nm of build/src/*/*.o);
- no circle between src/ files: the graph "a.o calls a function defined in
  b.o" has no cycle;
- an include that points up does not compile: a file on each floor that
  includes a header of the floor above fails with the Makefile's include
  path for that floor;
- topogen's make/ layer is below its two faces: with the Makefile's
  include paths, topo/make/ sees neither topo/cli/ nor topo/api/, and
  those two do not see each other; topo/assess/ (plan's room) sees
  topo/make/ and is seen by topo/cli/ only; no circle between the files
  of topo/make/, topo/assess/, topo/cli/ and topo/api/;
- dpsgd-train does not contain topogen's code (no tg_* or topogen_*, so
  no topogen_parse_args, in nm BIN/dpsgd-train);
- no `main` outside the programs' cli/ folders (nm of every library
  object under BUILD/src, BUILD/topo, BUILD/train);
- no hand-written Fortran prototype (`extern ... name_(`) in src/, topo/,
  train/ or tests/: LAPACK and BLAS come from src/base/cm_lapack.h;
- topogen's library has the same rules, folder by folder (graph < measure
  < kinds | weights < search; kinds and weights do not see each other):
  an object calls functions of its own folder, the folders below it and
  src/ only, and src/ calls none of topo/ (nm of build/topo/*/*.o); no
  circle between files; an include of a header of a folder above, of the
  sibling, or of a folder over the library (cli/, api/) does not compile
  with the folder's include path (INC_TGRAPH ... INC_TOPO), nor one of
  topo/ with src/'s (INC_SRC); the functions a library header declares
  are defined in one object.
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

# The Makefile's variables are read by a child make. Run from `make check`
# (parallel, recursive), the parent's MAKEFLAGS would bring its jobserver
# and "Entering directory" lines into the child's stdout: every call drops
# them.
MAKE_ENV = {k: v for k, v in os.environ.items()
            if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}

# the Makefile's include path of each floor
make = subprocess.run(
    ['make', '--no-print-directory', '-s', '-f', 'Makefile', '-f', '-',
     'floors-print'],
    input='floors-print:\n\t@echo "$(INC_SBASE)|$(INC_STOPO)|$(INC_SSPEC)"\n',
    capture_output=True, text=True,
    env=MAKE_ENV)
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

# ---- topogen's library: topo/<folder>/, the folders it may call ---------
TOPO_BELOW = {'graph': [], 'measure': ['graph'],
              'kinds': ['graph', 'measure'], 'weights': ['graph', 'measure'],
              'search': ['graph', 'measure', 'kinds', 'weights']}
TOPO_HEADER = {'graph': 'tg_graph.h', 'measure': 'tg_neff.h',
               'kinds': 'tg_seq.h', 'weights': 'tg_fdla.h',
               'search': 'tg_search.h'}
TOPO_INC = {'graph': 'INC_TGRAPH', 'measure': 'INC_TMEAS',
            'kinds': 'INC_TKINDS', 'weights': 'INC_TWEIGHTS',
            'search': 'INC_TOPO'}
tobjs = sorted(o for d in TOPO_BELOW
               for o in glob.glob(os.path.join(build, 'topo', d, '*.o')))
if not tobjs:
    bad.append('no objects under %s/topo/<folder> (build first)' % build)
tdef, tneeds = {}, {}
for o in tobjs:
    d, u = nm(o)
    for sym in d:
        tdef[sym] = o
    tneeds[o] = u
tfolder = {o: o.split(os.sep)[-2] for o in tobjs}
tcalls = {o: set() for o in tobjs}
for o in tobjs:
    for sym in sorted(tneeds[o]):
        t = tdef.get(sym)
        if t and t != o:
            tcalls[o].add(t)
            if (tfolder[t] != tfolder[o] and
                    tfolder[t] not in TOPO_BELOW[tfolder[o]]):
                bad.append('up: %s calls %s of %s' % (o, sym, t))
for o in objs:
    for sym in sorted(needs[o]):
        if sym in tdef:
            bad.append('up: %s calls %s of %s' % (o, sym, tdef[sym]))
calls, state = tcalls, {}
for o in tobjs:
    if o not in state:
        visit(o, [])

# each library header's functions are defined in one object
decl = re.compile(r'^[A-Za-z_][\w \*]*?\b(tg_\w+)\s*\(', re.M)
for d in TOPO_BELOW:
    for h in sorted(glob.glob(os.path.join('topo', d, '*.h'))):
        with open(h) as f:
            names = set(decl.findall(f.read()))
        homes = sorted({tdef[x] for x in names if x in tdef})
        if len(homes) > 1:
            bad.append('%s: its functions live in %d objects (%s)'
                       % (h, len(homes), ', '.join(homes)))

tvars = ['INC_SRC'] + [TOPO_INC[d] for d in TOPO_BELOW]
make = subprocess.run(
    ['make', '--no-print-directory', '-s', '-f', 'Makefile', '-f', '-',
     'floors-print'],
    input='floors-print:\n\t@echo "%s"\n'
          % '|'.join('$(%s)' % v for v in tvars),
    capture_output=True, text=True, env=MAKE_ENV)
tincs = make.stdout.strip().split('|')
# the folders over the library (cli/, api/, and any other): one header each
faces = [sorted(glob.glob(os.path.join(f, '*.h')))
         for f in sorted(glob.glob(os.path.join('topo', '*', '')))
         if os.path.basename(os.path.dirname(f)) not in TOPO_BELOW]
faces = [os.path.basename(h[0]) for h in faces if h]


def compiles(inc, header):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'probe.c')
        with open(src, 'w') as f:
            f.write('#include "%s"\nint x;\n' % header)
        return subprocess.run(['cc', '-fsyntax-only'] + inc.split() + [src],
                              capture_output=True).returncode == 0


if len(tincs) != len(tvars) or not all(tincs):
    bad.append('cannot read %s from the Makefile' % '/'.join(tvars))
else:
    inc = dict(zip(tvars, tincs))
    for d in TOPO_BELOW:
        if compiles(inc['INC_SRC'], TOPO_HEADER[d]):
            bad.append('include up compiles: src/ sees topo/%s/%s'
                       % (d, TOPO_HEADER[d]))
        path = inc[TOPO_INC[d]]
        for e in TOPO_BELOW:
            ok = compiles(path, TOPO_HEADER[e])
            if e == d or e in TOPO_BELOW[d]:
                if not ok:  # the probe is sound
                    bad.append('probe broken: topo/%s cannot include '
                               'topo/%s/%s' % (d, e, TOPO_HEADER[e]))
            elif ok:
                bad.append('include up compiles: topo/%s sees topo/%s/%s'
                           % (d, e, TOPO_HEADER[e]))
        for h in faces:
            if compiles(path, h):
                bad.append('include up compiles: topo/%s sees %s' % (d, h))

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

# topogen's faces over topo/make/: includes that point up or across fail,
# and the objects of make/, cli/ and api/ call each other without a circle
make = subprocess.run(
    ['make', '--no-print-directory', '-s', '-f', 'Makefile', '-f', '-',
     'faces-print'],
    input='faces-print:\n\t@echo "$(INC_TMAKE)|$(INC_TCLI)|$(INC_API)|'
          '$(INC_TASSESS)"\n',
    capture_output=True, text=True, env=MAKE_ENV)
faces = make.stdout.strip().split('|')
if len(faces) != 4:
    bad.append('cannot read INC_TMAKE/INC_TCLI/INC_API/INC_TASSESS from the '
               'Makefile')
else:
    # (include path, header, 1 when it must compile)
    probes = [(faces[0], 'topogen_config.h', 1),
              (faces[0], 'topogen_cli.h', 0), (faces[0], 'topogen.h', 0),
              (faces[1], 'topogen_make.h', 1), (faces[1], 'topogen.h', 0),
              (faces[2], 'topogen_make.h', 1), (faces[2], 'topogen_cli.h', 0),
              # assess/ (what plan computes) sits between make/ and cli/
              (faces[3], 'topogen_make.h', 1), (faces[3], 'topogen_cli.h', 0),
              (faces[3], 'topogen.h', 0), (faces[1], 'ta_plan.h', 1),
              (faces[0], 'ta_plan.h', 0), (faces[2], 'ta_plan.h', 0)]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'face.c')
        for inc, header, ok in probes:
            with open(src, 'w') as f:
                f.write('#include "%s"\nint x;\n' % header)
            r = subprocess.run(['cc', '-fsyntax-only', '-D_GNU_SOURCE']
                               + inc.split() + [src], capture_output=True)
            if (r.returncode == 0) != bool(ok):
                bad.append('%s with %s: %s' % (
                    header, inc.split()[-1],
                    'does not compile' if ok else 'compiles (points up or '
                    'across)'))
fobjs = sorted(sum((glob.glob(os.path.join(build, 'topo', d, '*.o'))
                    for d in ('make', 'assess', 'cli', 'api')), []))
fwhere, fcalls = {}, {}
for o in fobjs:
    d, u = nm(o)
    for s in d:
        fwhere[s] = o
    fcalls[o] = u
fcalls = {o: sorted({fwhere[s] for s in u if fwhere.get(s, o) != o})
          for o, u in fcalls.items()}
fstate = {}


def fvisit(v, path):
    fstate[v] = 1
    path.append(v)
    for w in fcalls[v]:
        if fstate.get(w) == 1:
            bad.append('circle: ' + ' -> '.join(path[path.index(w):] + [w]))
        elif w not in fstate:
            fvisit(w, path)
    path.pop()
    fstate[v] = 2


for o in fobjs:
    if o not in fstate:
        fvisit(o, [])

for b in bad:
    print('floors: ' + b)
print('floors: %d objects, %d violations' % (len(objs) + len(tobjs),
                                             len(bad)))
sys.exit(1 if bad else 0)
