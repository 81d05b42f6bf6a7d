/*
 * A command table with more than 16 commands: every command is a possible target of the
 * dispatcher's c->cmd->proc(c), admin ones (info, bgsave) among the per-request ones. A
 * clock read reached only through such a wide call is low confidence, hidden by default:
 * infoCommand's and bgsaveCommand's reads are not flagged. A read in the dispatcher itself
 * (a hot root) is, and so is one in a command the project names hot (pingCommand).
 */
// hotscan-args: --hot dispatch --hot pingCommand
#include <sys/resource.h>
#include <time.h>

struct client;
struct command {
    const char *name;
    void (*proc)(struct client *c);
};

struct client {
    struct command *cmd;
    long long last_cmd_time, reply;
};

static void getCommand(struct client *c) { c->reply = 3; }

static void setCommand(struct client *c) { c->reply = 3; }

static void delCommand(struct client *c) { c->reply = 3; }

static void incrCommand(struct client *c) { c->reply = 4; }

static void decrCommand(struct client *c) { c->reply = 4; }

static void appendCommand(struct client *c) { c->reply = 6; }

static void strlenCommand(struct client *c) { c->reply = 6; }

static void existsCommand(struct client *c) { c->reply = 6; }

static void expireCommand(struct client *c) { c->reply = 6; }

static void ttlCommand(struct client *c) { c->reply = 3; }

static void typeCommand(struct client *c) { c->reply = 4; }

static void keysCommand(struct client *c) { c->reply = 4; }

static void scanCommand(struct client *c) { c->reply = 4; }

static void infoCommand(struct client *c)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    c->reply = ru.ru_utime.tv_sec;
}

static void bgsaveCommand(struct client *c)
{
    c->reply = time(NULL);
}

static void debugCommand(struct client *c) { c->reply = 5; }

static void configCommand(struct client *c) { c->reply = 6; }

void pingCommand(struct client *c)
{
    c->reply = time(NULL); // expect: timer-hot-path
}

static struct command command_table[] = {
    {"get", getCommand},
    {"set", setCommand},
    {"del", delCommand},
    {"incr", incrCommand},
    {"decr", decrCommand},
    {"append", appendCommand},
    {"strlen", strlenCommand},
    {"exists", existsCommand},
    {"expire", expireCommand},
    {"ttl", ttlCommand},
    {"type", typeCommand},
    {"keys", keysCommand},
    {"scan", scanCommand},
    {"info", infoCommand},
    {"bgsave", bgsaveCommand},
    {"debug", debugCommand},
    {"config", configCommand},
    {"ping", pingCommand},
};


void dispatch(struct client *c)
{
    c->last_cmd_time = time(NULL); // expect: timer-hot-path
    c->cmd->proc(c);
}

struct command *lookup(int i)
{
    return &command_table[i];
}
