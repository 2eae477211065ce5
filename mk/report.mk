# report.mk - the page template of `latscope report` (src/report/report.html and report.js)
# becomes C arrays (xxd -i) in $(O)/gen/report_assets.h, included by src/report/html.c only.
$(O)/gen/report_assets.h: src/report/report.html src/report/report.js
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q){ xxd -i -n rep_report_html src/report/report.html && \
	      xxd -i -n rep_report_js src/report/report.js; } | \
	    sed 's/^unsigned/const unsigned/' > $@.tmp && mv $@.tmp $@
$(O)/src/report/html.o: $(O)/gen/report_assets.h
$(O)/src/report/html.o: CFLAGS_ALL += -I$(O)/gen
