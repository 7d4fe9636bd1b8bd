"""Real mathematical notation on the HTML pages: ``$...$`` spans pre-rendered to inline SVG with matplotlib's
mathtext (no TeX installation, no script, no web font: the page's Content-Security-Policy allows neither), and
the same text made plain Unicode for terminals, Markdown and JSON.

* :func:`math_html` escapes a text and replaces each ``$...$`` span by an inline ``<svg class="math">`` sized in
  ``em`` and aligned on the text's baseline, with the plain form as its accessible name (``aria-label``) and
  ``<title>``; the bytes are deterministic (fixed hash salt, no date, glyphs as paths, ids unique per formula).
* :func:`plain` turns ``$\\sqrt{2/m}\\,\\cos(Wx + b)$`` into ``√(2/m) cos(Wx + b)`` (a small table of the
  commands the zoo's descriptions use; unknown commands lose their backslash).

A formula mathtext cannot parse is shown as its plain form, never as an error on the page.
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
from typing import TYPE_CHECKING

import matplotlib
from markupsafe import Markup, escape
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

__all__ = ["math_html", "plain", "formula_svg", "MATH"]

#: A ``$...$`` span (no ``$`` inside; a lone ``$`` is left as typed).
MATH = re.compile(r"\$([^$\n]+)\$")
#: Rendering size (pt); the SVG is then scaled in em, so it follows the surrounding text.
FONT_PT = 10.0

_SYMBOLS = {
    r"\sqrt": "√", r"\gamma": "γ", r"\pi": "π", r"\rho": "ρ", r"\chi": "χ", r"\sigma": "σ", r"\kappa": "κ",
    r"\mu": "μ", r"\theta": "θ", r"\varepsilon": "ε", r"\epsilon": "ε", r"\omega": "ω", r"\Pi": "Π",
    r"\|": "‖", r"\langle": "⟨", r"\rangle": "⟩", r"\sim": "~", r"\cdot": "·", r"\times": "×", r"\le": "≤",
    r"\leq": "≤", r"\ge": "≥", r"\geq": "≥", r"\pm": "±", r"\to": "→", r"\infty": "∞", r"\sum": "Σ",
    r"\int": "∫", r"\Theta": "Θ", r"\max": "max", r"\cos": "cos", r"\sin": "sin", r"\exp": "exp",
    r"\log": "log", r"\det": "det", r"\,": " ", r"\;": " ", r"\ ": " ", r"\quad": "  ",
}


def plain(text: str) -> str:
    """``text`` with every ``$...$`` span made plain Unicode (for terminals, Markdown and JSON)."""
    return MATH.sub(lambda m: _plain_formula(m.group(1)), text)


def _plain_formula(tex: str) -> str:
    out = tex
    out = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: "/".join(x if re.fullmatch(r"[\w\\]+", x) else f"({x})"
                                                                   for x in m.groups()), out)
    out = re.sub(r"\\sqrt\{([^{}]*)\}", lambda m: "√" + (m.group(1) if re.fullmatch(r"\w+", m.group(1))
                                                          else f"({m.group(1)})"), out)
    out = re.sub(r"\\math(?:cal|rm|bf|it)\{([^{}]*)\}", r"\1", out)
    out = re.sub(r"\\(?:left|right)", "", out)
    for cmd in sorted(_SYMBOLS, key=len, reverse=True):
        out = re.sub(re.escape(cmd) + (r"(?![A-Za-z])" if cmd[-1].isalpha() else ""), _SYMBOLS[cmd], out)
    out = re.sub(r"\\([A-Za-z]+)", r"\1", out)  # an unknown command keeps its name
    out = re.sub(r"([_^])\{([^{}]*)\}", lambda m: m.group(1) + (m.group(2) if len(m.group(2)) == 1 else
                                                               "{" + m.group(2) + "}"), out)
    out = out.replace(r"\{", "{").replace(r"\}", "}")
    return re.sub(r"  +", " ", out)


@functools.lru_cache(maxsize=1024)
def formula_svg(tex: str) -> str:
    """One formula (without the dollars) as inline SVG markup; raises ValueError if mathtext cannot parse it."""
    from matplotlib.mathtext import MathTextParser
    from matplotlib.font_manager import FontProperties

    rc: dict[RcKeyType, object] = {"mathtext.fontset": "dejavusans", "font.family": "DejaVu Sans", "svg.fonttype": "path",
          "svg.hashsalt": "rfverify-math", "path.simplify": False}
    with matplotlib.rc_context(rc):
        parsed = MathTextParser("path").parse(f"${tex}$", dpi=72, prop=FontProperties(size=FONT_PT))
        fig = Figure(figsize=(max(parsed.width, 1.0) / 72, max(parsed.height, 1.0) / 72), dpi=72)
        fig.text(0, parsed.depth / max(parsed.height, 1.0), f"${tex}$", fontsize=FONT_PT, color="#1f2328")
        buf = io.StringIO()
        fig.savefig(buf, format="svg", transparent=True, metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    key = "m" + hashlib.blake2b(tex.encode("utf-8"), digest_size=5).hexdigest()
    text = re.sub(r'id="([A-Za-z][\w.-]*)"', lambda m: f'id="{key}-{m.group(1)}"', text)
    text = re.sub(r'(xlink:href|href)="#([A-Za-z][\w.-]*)"', lambda m: f'{m.group(1)}="#{key}-{m.group(2)}"', text)
    text = re.sub(r"url\(#([A-Za-z][\w.-]*)\)", lambda m: f"url(#{key}-{m.group(1)})", text)
    box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', text)
    width, height = (float(box.group(1)), float(box.group(2))) if box else (parsed.width, parsed.height)
    width_em, height_em, depth_em = width / FONT_PT, height / FONT_PT, parsed.depth / FONT_PT
    label = str(escape(_plain_formula(tex)))
    text = re.sub(r'<svg ([^>]*?)width="[\d.]+pt" height="[\d.]+pt"',
                  lambda m: f'<svg {m.group(1)}class="math" role="img" aria-label="{label}" '
                  f'style="width:{width_em:.3f}em;height:{height_em:.3f}em;vertical-align:-{depth_em:.3f}em"',
                  text, count=1)
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r"\s*<!--.*?-->", "", text, flags=re.S)  # matplotlib's comments repeat the TeX source
    text = text.replace("#1f2328", "currentColor")  # the formula takes the colour of the text around it
    text = text.replace(">", f"><title>{label}</title>", 1)
    return text.strip()


def math_html(text: str) -> Markup:
    """``text`` HTML-escaped, with each ``$...$`` span as an inline SVG formula (or its plain form if unparsable)."""
    parts: list[str] = []
    last = 0
    for m in MATH.finditer(text):
        parts.append(str(escape(text[last:m.start()])))
        try:
            parts.append(formula_svg(m.group(1)))
        except ValueError:
            parts.append(str(escape(_plain_formula(m.group(1)))))
        last = m.end()
    parts.append(str(escape(text[last:])))
    return Markup("".join(parts))
