// hotscan-args: --hot handle
void stamp_request(void);

void handle(void)
{
    stamp_request();
}
