"""Rendering: report documents and files (:mod:`.writing`), HTML pages (:mod:`.html`, Jinja2 templates),
figures (:mod:`.plots`) and calibration pages (:mod:`.calibration_pages`).  Nothing here runs a plug-in."""
