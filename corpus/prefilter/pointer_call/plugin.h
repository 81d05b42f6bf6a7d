void plugin_run(void);
long stamp_now(void);
