"""Property checks, one module per property family (installed as ``rfverify.properties``)."""
