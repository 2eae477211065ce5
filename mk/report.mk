# report.mk - the page template of `latscope report` (src/report/report.html, report.js and
# report.css)
# becomes C arrays (xxd -i) in $(O)/gen/report_assets.h, included by src/report/html.c only.
$(O)/gen/report_assets.h: src/report/report.html src/report/report.js src/report/report.css
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q){ xxd -i -n rep_report_html src/report/report.html && \
	      xxd -i -n rep_report_js src/report/report.js && \
	      xxd -i -n rep_report_css src/report/report.css; } | \
	    sed 's/^unsigned/const unsigned/' > $@.tmp && mv $@.tmp $@
$(O)/src/report/html.o: $(O)/gen/report_assets.h
$(O)/src/report/html.o: CFLAGS_ALL += -I$(O)/gen
