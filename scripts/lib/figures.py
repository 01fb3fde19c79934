"""figures.py: what the plotting scripts of scripts/experiments/ share
(imported, not run): matplotlib behind a guard, so that a machine
without it still writes every table and only the figures are left out.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from figures import pyplot
    plt = pyplot("NAME.py", "figure")
    if plt is None:
        return
"""


def pyplot(script, what):
    """matplotlib.pyplot on the Agg backend (files only, no display); None
    after printing "SCRIPT: no matplotlib, no WHAT" on stdout when
    matplotlib is not installed"""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("%s: no matplotlib, no %s" % (script, what))
        return None
    return plt
