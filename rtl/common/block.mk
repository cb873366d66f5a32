# rtl/common: verilated models of the shared primitives and their block tests.
# Each primitive is tested in a narrow and a wide, a shallow and a deep form.

$(eval $(call vmodel,cmn_skid_buf_w32,cmn_skid_buf,Width=32,common_vpipe,-DVPIPE_MODULE='"cmn_skid_buf"' -DP_Depth=2))
$(eval $(call vmodel,cmn_skid_buf_w1,cmn_skid_buf,Width=1,common_vpipe,-DVPIPE_MODULE='"cmn_skid_buf"' -DP_Depth=2))
$(eval $(call vmodel,cmn_fifo_w32_d8,cmn_fifo,Width=32 Depth=8,common_vpipe,-DVPIPE_MODULE='"cmn_fifo"' -DVPIPE_HAS_COUNT))
$(eval $(call vmodel,cmn_fifo_w64_d2,cmn_fifo,Width=64 Depth=2,common_vpipe,-DVPIPE_MODULE='"cmn_fifo"' -DVPIPE_HAS_COUNT))
$(eval $(call vmodel,cmn_fifo_w8_d64,cmn_fifo,Width=8 Depth=64,common_vpipe,-DVPIPE_MODULE='"cmn_fifo"' -DVPIPE_HAS_COUNT))

$(eval $(call vtest,test_cmn_skid_buf_w32,common/test_vpipe_rtl,cmn_skid_buf_w32))
$(eval $(call vtest,test_cmn_skid_buf_w1,common/test_vpipe_rtl,cmn_skid_buf_w1))
$(eval $(call vtest,test_cmn_fifo_w32_d8,common/test_vpipe_rtl,cmn_fifo_w32_d8))
$(eval $(call vtest,test_cmn_fifo_w64_d2,common/test_vpipe_rtl,cmn_fifo_w64_d2))
$(eval $(call vtest,test_cmn_fifo_w8_d64,common/test_vpipe_rtl,cmn_fifo_w8_d64))

# Post-synthesis: the iCE40 netlists of a skid buffer and of a FIFO in block RAM (64 x 8 bits:
# one SB_RAM40_4K), under the same block test.
$(eval $(call vgate,cmn_skid_buf_w32_gate,cmn_skid_buf,Width=32,common_vpipe,-DVPIPE_MODULE='"cmn_skid_buf"' -DP_Depth=2))
$(eval $(call vgate,cmn_fifo_w8_d64_gate,cmn_fifo,Width=8 Depth=64,common_vpipe,-DVPIPE_MODULE='"cmn_fifo"' -DVPIPE_HAS_COUNT))
$(eval $(call vtest,test_cmn_skid_buf_w32_gate,common/test_vpipe_rtl,cmn_skid_buf_w32_gate))
$(eval $(call vtest,test_cmn_fifo_w8_d64_gate,common/test_vpipe_rtl,cmn_fifo_w8_d64_gate))
