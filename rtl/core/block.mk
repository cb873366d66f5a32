# rtl/core: verilated models of the compute core and their block tests.

# The processing element alone, against the numerics reference.
$(eval $(call vmodel,sa_pe,sa_pe,,sa_pe,))
$(eval $(call vtest,test_sa_pe,test_sa_pe,sa_pe))
