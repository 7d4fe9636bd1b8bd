"""Reference implementations of random-feature schemes (installed as ``rfverify.implementations``)."""
